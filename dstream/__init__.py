"""dstreams streaming."""
