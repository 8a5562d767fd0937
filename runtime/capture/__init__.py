"""memhub.runtime.capture."""
