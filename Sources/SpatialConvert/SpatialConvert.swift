import Codecs
