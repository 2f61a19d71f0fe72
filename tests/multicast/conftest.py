from .netns import netns_pair, netns_star

__all__ = ["netns_pair", "netns_star"]
