"""memhub.compiler.cli."""
