import { describe, expect, test } from "bun:test";
import { escapeHtml, html, raw } from "../../api/admin-area/html.ts";

describe("the admin area's html template", () => {
  test("escapes every interpolated value", () => {
    const name = `<script>alert("x")</script>&'`;
    expect(html`<td>${name}</td>`.value).toBe("<td>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</td>");
    expect(html`<input value="${`" onfocus="alert(1)`}">`.value).toBe('<input value="&quot; onfocus=&quot;alert(1)">');
  });

  test("arrays are rendered item by item, each escaped; nested templates stay markup", () => {
    const rows = ["<a>", "b"].map((v) => html`<li>${v}</li>`);
    expect(html`<ul>${rows}</ul>`.value).toBe("<ul><li>&lt;a&gt;</li><li>b</li></ul>");
    expect(html`${["<x>", html`<y>`]}`.value).toBe("&lt;x&gt;<y>");
  });

  test("null, undefined and false render nothing; numbers render as text", () => {
    expect(html`[${null}${undefined}${false}${0}${12.5}]`.value).toBe("[012.5]");
  });

  test("only raw() passes markup through, and a plain string never does", () => {
    expect(html`${raw("<br>")}`.value).toBe("<br>");
    expect(html`${"<br>"}`.value).toBe("&lt;br&gt;");
    expect(escapeHtml(`&<>"'`)).toBe("&amp;&lt;&gt;&quot;&#39;");
  });
});
