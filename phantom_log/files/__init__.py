"""The file system: what kind of file a path names, outputs written atomically."""
