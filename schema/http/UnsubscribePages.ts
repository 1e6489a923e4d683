/**
 * The pages a recipient sees on an unsubscribe link, in the recipients' language (Spanish). Nothing
 * of the request is written into them: they are the same for every link.
 */
const page = (title: string, body: string) =>
  `<!doctype html>
<html lang="es"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${title}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;line-height:1.5}button{font-size:1rem;padding:.6rem 1.2rem;cursor:pointer}</style>
</head><body>${body}</body></html>
`

const CONFIRM_FORM =
  `<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Darme de baja</button></form>`

/** Opening the link: asks (mail scanners open every link, so opening one changes nothing). */
export const CONFIRM_PAGE = page(
  "Darse de baja",
  `<h1>¿Dejar de recibir estos correos?</h1>
<p>Confirma y no te volveremos a escribir desde esta secuencia ni desde las demás de este remitente.</p>
${CONFIRM_FORM}`
)

/** A POST that is not the page's form (no `List-Unsubscribe=One-Click`, not a form, too large, unreadable): asks again. */
export const NOT_CONFIRMED_PAGE = page(
  "Falta confirmar",
  `<h1>No pudimos leer tu confirmación</h1>
<p>No se cambió nada. Para dejar de recibir estos correos, confirma con este botón.</p>
${CONFIRM_FORM}`
)

/** Something failed on our side that is not the database being away: nothing was changed. */
export const FAILED_PAGE = page(
  "Algo falló",
  `<h1>Algo falló de nuestro lado</h1>
<p>No se cambió nada. Vuelve a abrir el enlace más tarde y confirma otra vez, o responde al correo pidiendo que no te escriban más.</p>`
)

/** After the button (or a provider's one-click POST), the first time and every time after. */
export const DONE_PAGE = page(
  "Listo",
  `<h1>Listo: te diste de baja</h1>
<p>No recibirás más correos de este remitente. Si fue un error, respóndele a quien te escribió.</p>`
)

/** A link altered, cut short, or whose sequence or person is gone (or a request no link makes): nothing was changed. */
export const UNKNOWN_LINK_PAGE = page(
  "Enlace no válido",
  `<h1>Este enlace para darse de baja no es válido</h1>
<p>Puede que se haya cortado o alterado al copiarlo, o que la secuencia ya no exista. No se cambió nada.</p>
<p>Abre el enlace tal como viene en el correo, o responde al correo pidiendo que no te escriban más.</p>`
)

/** The unsubscribe could not be committed (the database is away): nothing was changed, and the link works later. */
export const UNAVAILABLE_PAGE = page(
  "Inténtalo más tarde",
  `<h1>No pudimos darte de baja en este momento</h1>
<p>Fue un problema pasajero de nuestro lado y no se cambió nada.</p>
<p>Vuelve a abrir el enlace en unos minutos y confirma otra vez, o responde al correo pidiendo que no te escriban más.</p>`
)
