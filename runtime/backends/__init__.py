"""memhub.runtime.backends."""
