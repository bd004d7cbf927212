"""Bots built on the Python client: each holds one seat's token and nothing else."""

from cardgames.clients.bots.random_bot import RandomBot

__all__ = ["RandomBot"]
