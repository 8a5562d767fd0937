"""The memory service: records (`records`, `frontmatter`) and where they live (`layout`);
projects, the index, search and recall follow."""
