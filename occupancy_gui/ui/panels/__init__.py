"""Input panels: each writes the session on user edits and mirrors it with its signals blocked."""
