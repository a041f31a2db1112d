"""Detection transforms that move boxes with the image (OpenCV)."""
import cv2
import numpy as np
import torch


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, image, target):
        for t in self.transforms:
            image, target = t(image, target)
        return image, target


class LetterBox:
    def __init__(self, size):
        self.size = size

    def __call__(self, image, target):
        h, w = image.shape[:2]
        r = self.size / max(h, w)
        image = cv2.resize(image, (round(w * r), round(h * r)),
                           interpolation=cv2.INTER_LINEAR)
        dh, dw = self.size - image.shape[0], self.size - image.shape[1]
        image = cv2.copyMakeBorder(image, 0, dh, 0, dw,
                                   cv2.BORDER_CONSTANT,
                                   value=(114, 114, 114))
        target["boxes"] = target["boxes"] * r
        return image, target


class RandomHSV:
    def __init__(self, hgain, sgain, vgain):
        self.gains = np.array([hgain, sgain, vgain])

    def __call__(self, image, target):
        r = np.random.uniform(-1, 1, 3) * self.gains + 1
        hsv = cv2.cvtColor(image, cv2.COLOR_RGB2HSV).astype(np.float32)
        hsv = np.clip(hsv * r, 0, 255).astype(np.uint8)
        return cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB), target


class ToTensor:
    def __call__(self, image, target):
        image = torch.from_numpy(image).permute(2, 0, 1).float() / 255
        target = {k: torch.as_tensor(v) for k, v in target.items()}
        return image, target
