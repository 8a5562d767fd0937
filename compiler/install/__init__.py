"""memhub.compiler.install."""
