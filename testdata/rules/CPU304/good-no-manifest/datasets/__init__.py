from .coco import CocoDetection

__all__ = ["CocoDetection"]
