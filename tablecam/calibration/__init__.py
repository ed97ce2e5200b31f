"""From a camera frame to the table in millimetres: lens, table homography, colours, settings."""
