"""The daily briefing: composition, safe rendering of outside text, templates and charts."""
