"""Writing files (``phantom_log.files``): writes that cannot clobber, under signals and
full disks."""
