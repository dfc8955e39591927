"""What the command line prints, read back."""


def table_rows(out, title):
    """Cells of the body rows of the table titled ``title``."""
    block = out.split(title, 1)[1]
    rows = []
    for line in block.splitlines()[4:]:
        if not line.startswith("│"):
            break
        rows.append([cell.strip() for cell in line.strip("│").split("│")])
    return rows
