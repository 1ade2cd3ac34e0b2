"""The constraint table: an item model over ``OccupancyResult.rows``."""
