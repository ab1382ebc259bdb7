"""Running episodes and writing run directories."""
