"""Utilities every layer may use: input validation and the parameter table, worker
processes, optional pandas frames, host memory."""
