import type { ComponentChildren } from "preact";
import { onLinkClick } from "./router";

/** A real link (keyboard, middle click and copy work) that moves inside the app without a reload. */
export function Link(props: { href: string; children: ComponentChildren; class?: string; "aria-current"?: "page" | undefined }) {
  return (
    <a href={props.href} class={props.class} aria-current={props["aria-current"]} onClick={onLinkClick}>
      {props.children}
    </a>
  );
}
