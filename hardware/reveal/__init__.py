"""The camera wing's reveal flow: frames in, a reading offered to the table out."""
