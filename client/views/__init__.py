"""Views: functions that draw the client model onto a pygame surface."""
