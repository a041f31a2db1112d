"""One training script that two teams' Jobs run with different limits."""
import torch

from pools import make_loader


def main():
    torch.set_num_threads(4)
    loader = make_loader("/data")
    for _ in loader:
        pass


if __name__ == "__main__":
    main()
