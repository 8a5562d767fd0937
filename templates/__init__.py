"""memhub.templates."""
