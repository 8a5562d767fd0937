"""The memory service: records, projects, index, search, recall (reserved; the memory issue fills it)."""
