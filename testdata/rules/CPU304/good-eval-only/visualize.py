"""Writes prediction overlays for a quick look at the validation set."""
import cv2
import numpy as np

PALETTE = np.random.default_rng(0).integers(0, 255, (256, 3), dtype=np.uint8)


def save_overlay(image, pred, path):
    """image: CHW float tensor in [0, 1]; pred: HW class ids."""
    rgb = (image.permute(1, 2, 0).numpy() * 255).astype(np.uint8)
    bgr = cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)
    colours = PALETTE[pred.numpy().astype(np.uint8)]
    cv2.imwrite(path, cv2.addWeighted(bgr, 0.6, colours, 0.4, 0))
