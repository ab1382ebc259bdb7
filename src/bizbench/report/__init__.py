"""Reports: summary tables and plots from run directories."""
