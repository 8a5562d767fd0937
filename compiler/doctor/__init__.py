"""memhub.compiler.doctor."""
