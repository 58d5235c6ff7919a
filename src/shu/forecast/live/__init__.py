"""What the daily run does with a trained model: today's question rows, issuing forecasts,
resolving them when their horizon passes, and replaying past days as they were."""
