from .netns import netns_pair

__all__ = ["netns_pair"]
