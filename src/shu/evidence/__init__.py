"""Evidence: retrieval over the document corpus, claim checks and receipts."""
