"""Data sources: each module reads one kind of outside data into the store."""
