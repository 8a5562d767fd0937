"""memhub.compiler."""
