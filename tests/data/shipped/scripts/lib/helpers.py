"""A helper module the shipped script could import (plain data: not executable)."""

GREETING = "hello from a shipped helper"
