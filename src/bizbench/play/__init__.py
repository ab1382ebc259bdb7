"""``bizbench play``: a person plays any env in the browser (docs/play.md)."""
