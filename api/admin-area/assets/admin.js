// The admin area's only script: the copy buttons. Pages work without it; it only reveals
// and wires the buttons (the Content-Security-Policy allows scripts from this origin only).
document.addEventListener("DOMContentLoaded", () => {
  for (const button of document.querySelectorAll("button[data-copy]")) {
    const source = document.getElementById(button.getAttribute("data-copy"));
    if (!source || !navigator.clipboard) continue;
    button.hidden = false;
    button.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(source.textContent);
        button.textContent = "Copied";
      } catch {
        button.textContent = "Copy failed: select the text";
      }
      setTimeout(() => (button.textContent = "Copy"), 3000);
    });
  }
});
