"""What a record looks like (``phantom_log.views``): annotations, the terminal, the replay
page, ``show`` on illegal records, output no record can forge."""
