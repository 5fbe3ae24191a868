"""The games and tricks tables, built in batches, and the statistics over them."""
