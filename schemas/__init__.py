"""memhub.schemas."""
