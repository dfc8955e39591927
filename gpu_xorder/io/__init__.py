"""Files: CSV score tables read by one reader that names file, line and column, and
writes that are checked before any work and land all or nothing."""

from ._csv import LABEL_KINDS, Table
from ._files import check_all_outputs, json_text, staged_folder, write_files, write_json

__all__ = ["LABEL_KINDS", "Table", "check_all_outputs", "json_text", "staged_folder",
           "write_files", "write_json"]
