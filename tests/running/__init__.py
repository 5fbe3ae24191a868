"""Running many records (``phantom_log.running``): worker processes, isolation of failures,
the Dask cluster."""
