"""memhub.compiler.safewrite."""
