"""memhub.runtime.transcripts."""
