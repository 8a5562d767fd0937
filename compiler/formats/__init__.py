"""memhub.compiler.formats."""
