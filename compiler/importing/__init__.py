"""memhub.compiler.importing."""
