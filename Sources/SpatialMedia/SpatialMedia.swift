import ISOBMFF
