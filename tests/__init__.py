"""The course's tests, one folder per code base (README, "Working on the course")."""
