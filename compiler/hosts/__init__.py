"""memhub.compiler.hosts."""
