"""Running work over many records: processes, the garbage collector, the cluster."""
