"""Records read: sources, strict JSON, the schema, the record model, selection."""
