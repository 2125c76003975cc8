print("coremotiond")
