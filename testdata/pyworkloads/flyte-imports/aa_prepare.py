"""A script of its own that the flow's tasks share a module with."""
from helpers import shard_paths

if __name__ == "__main__":
    print(shard_paths("/data", 4))
