"""Ratings: Glicko-2 with lichess's settings, one rating per account and pool (a rated game and
its speed), the checks a rated room makes, and the rating change a rated game's end records
once."""
