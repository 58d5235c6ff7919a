"""The models: estimators, the yes/no and interval forecasters, Platt calibration on a later
block, the fit/calibration split shared by training and the backtest, training on the whole
store and the saved artifact."""
