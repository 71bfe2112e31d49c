// Client for the paginated order API.
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export async function fetchOrders(cursor?: string): Promise<Page<unknown>> {
  const url = cursor ? `/orders?cursor=${encodeURIComponent(cursor)}` : "/orders";
  const response = await fetch(url);
  if (!response.ok) {
    throw new Error(`orders request failed: ${response.status}`);
  }
  return (await response.json()) as Page<unknown>;
}
