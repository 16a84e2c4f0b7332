# Setup. These first lines are the same in every chapter (book/colab_setup.py; a test checks each notebook).
# In Colab: install the book's package, pinned to a release, and CuPy when the runtime has a GPU.
import shutil
import subprocess
import sys

if "google.colab" in sys.modules:
    packages = ["neurips24 @ git+https://github.com/neurips24-executed/neurips24-executed@v0.1.0"]
    if shutil.which("nvidia-smi"):  # a GPU runtime: the chapters' CUDA kernels run through CuPy
        packages.append("cupy-cuda12x")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", *packages], check=True)
